//! The playground page: HTML, CSS and script compiled into the binary (nothing is fetched from
//! the network), and the example program the editor starts with.

/// The page.
pub const INDEX_HTML: &str = include_str!("static/index.html");
/// The page's script (plain JavaScript, no library).
pub const APP_JS: &str = include_str!("static/app.js");
/// The page's style sheet.
pub const STYLE_CSS: &str = include_str!("static/style.css");
/// The program the editor starts with.
pub const EXAMPLE: &str = include_str!("static/example.che");
