//! Referential alignment's data side (paper III.D): the records and reference
//! carriers of a document, the scopes' resolution order, and the WL reference graph
//! of one group of scopes.
//!
//! * `schema`: what the index reads of the plan beyond the scorer's nodes (the
//!   properties in schema order, each scope's id field, the nested scopes);
//! * `index`: `index_document`, the records of every scope and the carriers,
//!   borrowed from the document (`owned`: a document kept with its index);
//! * `order`: `resolution_order`, the scope dependency graph in groups;
//! * `graph`: `build_graph`, the vertices, edges and seeds of one side;
//! * `state`, `resolve`: the resolution, every scope paired group after group
//!   (C and the documents' score asked of the scorer through `ScopeScores`);
//! * `trace`: `align_scopes`, the same resolution with what `align` shows of it.
//! * `histories`, `blocked`, `size`: a scope's colour histories (the structure of
//!   any block of it), a `blockBy` scope paired block by block, the size limit.
//!
//! The refinement of the graph is `align::wl`; the pairing of records is the tie
//! policy's.

mod blocked;
mod error;
#[cfg(test)]
mod fixture;
mod graph;
mod histories;
mod index;
mod order;
mod owned;
mod resolve;
mod schema;
mod size;
mod state;
mod trace;

pub use error::ReferError;
pub use graph::{build_graph, Edge, Graph, Resolution, Side, Vertex, VertexKind};
pub use index::{
    id_key, index_document, Carrier, DocumentIndex, Occurrence, Record, Reference, Step,
};
pub use order::{resolution_groups, Groups, ScopeWarning};
pub use owned::OwnedIndex;
pub use resolve::{resolve_and_score, Mode, ResolveError, ScopeScores, Trace};
pub use schema::ScopeSchema;
pub use size::{grouped, TooBig};
pub use state::{Bijection, Referential};
pub use trace::{align_scopes, Agreement, Aligned, IdWarning, ScopeReport};
