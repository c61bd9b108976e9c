//! Big buffers (a scope's score matrix, the assignment's cost) asked to be backed
//! by huge pages where the kernel leaves that to the program (Linux's transparent
//! huge pages in `madvise` mode): one page fault per 2 MiB instead of per 4 KiB on
//! first touch, and far fewer TLB misses for the strided and transposed walks over
//! them. A hint only: the contents and the results are the same either way.

/// Buffers below this size are left as they are (their faults cost little).
const ADVISED_FROM_BYTES: usize = 8 << 20;

/// The huge page size the advice is aligned to (a multiple of every base page size).
#[cfg(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
))]
const HUGE_PAGE: usize = 2 << 20;

/// Advise the spare and used capacity of `buffer` (before its first touch, for the
/// advice to count) to be backed by huge pages.
pub(crate) fn advise_huge_pages<T>(buffer: &mut Vec<T>) {
    let bytes = buffer.capacity().saturating_mul(std::mem::size_of::<T>());
    if bytes < ADVISED_FROM_BYTES {
        return;
    }
    advise(buffer.as_mut_ptr() as usize, bytes);
}

#[cfg(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
))]
#[allow(unsafe_code)]
fn advise(start: usize, bytes: usize) {
    use std::ffi::{c_int, c_void};
    extern "C" {
        fn madvise(addr: *mut c_void, len: usize, advice: c_int) -> c_int;
    }
    /// `MADV_HUGEPAGE` on these architectures (asm-generic/mman-common.h).
    const MADV_HUGEPAGE: c_int = 14;
    // only whole huge pages inside the buffer: no byte outside it is advised
    let first = start.saturating_add(HUGE_PAGE - 1) & !(HUGE_PAGE - 1);
    let end = start.saturating_add(bytes) & !(HUGE_PAGE - 1);
    if end > first {
        // SAFETY: [first, end) lies within the allocation `buffer` owns (rounded
        // inwards to huge page boundaries, which are page aligned as madvise needs),
        // and MADV_HUGEPAGE changes neither the mapping's contents nor its validity,
        // only how the kernel backs it; a failure (advice unsupported) is harmless
        // and ignored.
        unsafe {
            madvise(first as *mut c_void, end - first, MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
)))]
fn advise(_start: usize, _bytes: usize) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn advised_buffers_keep_their_contents() {
        let mut buffer: Vec<f64> = Vec::with_capacity(3 << 20);
        advise_huge_pages(&mut buffer);
        buffer.resize(3 << 20, 0.5);
        assert!(buffer.iter().all(|&v| v == 0.5));
        let mut small = vec![1u8; 10];
        advise_huge_pages(&mut small);
        assert_eq!(small, vec![1u8; 10]);
    }
}
