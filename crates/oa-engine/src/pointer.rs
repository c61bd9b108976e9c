//! JSON Pointers (RFC 6901): the one place a reference token is escaped and an
//! index written, for the documents' index, the node table, the pair paths and the
//! errors' locations (the rules of `oa_core.pointer`).

/// The pieces of `token` escaped as a reference token (`~` as `~0`, `/` as `~1`):
/// written one after another they are the escaped token. A token without `~` or
/// `/` (most are) is one piece, itself.
///
/// ```
/// use oa_engine::pointer::escaped;
/// assert_eq!(escaped("a/b~c").collect::<String>(), "a~1b~0c");
/// assert_eq!(escaped("name").collect::<Vec<_>>(), ["name"]);
/// ```
pub fn escaped(token: &str) -> Escaped<'_> {
    Escaped { rest: token }
}

/// Whether `token` is its own escape (no `~` and no `/`).
pub fn is_plain(token: &str) -> bool {
    !token.contains(ESCAPED)
}

/// The characters a reference token escapes.
const ESCAPED: [char; 2] = ['~', '/'];

/// The iterator of [`escaped`].
#[derive(Clone, Debug)]
pub struct Escaped<'t> {
    rest: &'t str,
}

impl<'t> Iterator for Escaped<'t> {
    type Item = &'t str;

    fn next(&mut self) -> Option<&'t str> {
        if self.rest.is_empty() {
            return None;
        }
        // `~` and `/` are ASCII: every split below falls on a character boundary
        let (piece, rest) = match self.rest.find(ESCAPED) {
            Some(0) => {
                let escape = if self.rest.starts_with('~') {
                    "~0"
                } else {
                    "~1"
                };
                (escape, self.rest.get(1..).unwrap_or_default())
            }
            Some(at) => self.rest.split_at_checked(at).unwrap_or((self.rest, "")),
            None => (self.rest, ""),
        };
        self.rest = rest;
        Some(piece)
    }
}

/// Append `/` and the escaped `token` to `out`.
pub fn push_token(out: &mut String, token: &str) {
    out.push('/');
    escaped(token).for_each(|piece| out.push_str(piece));
}

/// Append `/` and the escaped `token` to the UTF-8 bytes `out`.
pub fn push_token_bytes(out: &mut Vec<u8>, token: &str) {
    out.push(b'/');
    escaped(token).for_each(|piece| out.extend_from_slice(piece.as_bytes()));
}

/// `join(pointer, token)`: a JSON Pointer one token further down.
///
/// ```
/// assert_eq!(oa_engine::pointer::join("/a", "b/c"), "/a/b~1c");
/// ```
pub fn join(pointer: &str, token: &str) -> String {
    let mut out = String::with_capacity(pointer.len() + token.len() + 1);
    out.push_str(pointer);
    push_token(&mut out, token);
    out
}

/// The pointer of `tokens`, outermost first.
///
/// ```
/// assert_eq!(oa_engine::pointer::of_tokens(["a~b", "", "3"]), "/a~0b//3");
/// ```
pub fn of_tokens<'t>(tokens: impl IntoIterator<Item = &'t str>) -> String {
    let mut out = String::new();
    for token in tokens {
        push_token(&mut out, token);
    }
    out
}

/// Append `n` in decimal to `out` (an index's token: digits need no escape).
pub fn push_decimal(out: &mut String, n: usize) {
    digits(n).for_each(|digit| out.push(char::from(digit)));
}

/// Append `n` in decimal to the UTF-8 bytes `out`.
pub fn push_decimal_bytes(out: &mut Vec<u8>, n: usize) {
    out.extend(digits(n));
}

/// The ASCII digits of `n`, the most significant first (`write!` costs more).
fn digits(n: usize) -> impl Iterator<Item = u8> {
    let mut power = 1;
    while n / power >= 10 {
        power *= 10; // at most n: cannot overflow
    }
    std::iter::successors(Some(power), |&power| (power >= 10).then_some(power / 10)).map(
        // one digit, below 10: the cast is exact
        #[allow(clippy::cast_possible_truncation)]
        move |power| b'0' + (n / power % 10) as u8,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_tilde_before_slash_and_keeps_the_rest() {
        for (token, expected) in [
            ("", ""),
            ("~", "~0"),
            ("/", "~1"),
            ("~1", "~01"),
            ("a//b", "a~1~1b"),
            ("é~/x", "é~0~1x"),
        ] {
            assert_eq!(escaped(token).collect::<String>(), expected);
            let mut bytes = Vec::new();
            push_token_bytes(&mut bytes, token);
            assert_eq!(bytes, format!("/{expected}").into_bytes());
        }
    }

    #[test]
    fn decimals() {
        for n in [0, 7, 10, 99, 100, 12_345, usize::MAX] {
            let mut out = String::new();
            push_decimal(&mut out, n);
            assert_eq!(out, n.to_string());
            let mut bytes = Vec::new();
            push_decimal_bytes(&mut bytes, n);
            assert_eq!(bytes, n.to_string().into_bytes());
        }
    }
}
