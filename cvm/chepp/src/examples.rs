//! The example programs shipped with the compiler, in the spirit of the
//! original distribution (`shanny.che` including `stdlib.che`,
//! `midgame.che` and `endgame.che`). They are compiled into the library so
//! that tests, documentation and embedders can use them without files.

use super::source::MemLoader;

/// The example files: name and text.
pub const EXAMPLES: &[(&str, &str)] = &[
    ("shanny.che", include_str!("../examples/shanny.che")),
    ("midgame.che", include_str!("../examples/midgame.che")),
    ("endgame.che", include_str!("../examples/endgame.che")),
];

/// The main file of the example program.
pub const MAIN: &str = "shanny.che";

/// A loader serving the example files (the standard library comes from
/// the bundled copy).
pub fn loader() -> MemLoader {
    MemLoader::with(EXAMPLES)
}
