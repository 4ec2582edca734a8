//! The generator's tree of a Che program and its printer.
//!
//! The tree holds names and arguments as the text they are printed as;
//! the printer varies the layout (line breaks inside statements, comments
//! between and after them) so that the lexer's and the converter's handling
//! of both is exercised too.

use std::fmt::{self, Write};

/// A generated Che program.
#[derive(Clone, Debug, Default)]
pub struct Program {
    /// The statements and comments, in order.
    pub items: Vec<Item>,
}

/// A statement or a comment line.
#[derive(Clone, Debug)]
pub enum Item {
    /// `# text`
    Comment(String),
    /// `pattern NAME { AND } { OR };`
    Pattern {
        /// The name.
        name: String,
        /// The AND-list.
        and: Vec<Entry>,
        /// The OR-list.
        or: Vec<Entry>,
    },
    /// `advice NAME steps;`
    Advice {
        /// The name.
        name: String,
        /// The steps.
        steps: Vec<Step>,
    },
    /// `rule NAME { patterns } advices;`
    Rule {
        /// The name.
        name: String,
        /// Pattern names.
        patterns: Vec<String>,
        /// Advice names.
        advices: Vec<String>,
    },
}

/// A pattern entry.
#[derive(Clone, Debug)]
pub struct Entry {
    /// Written with `!`.
    pub negated: bool,
    /// A function call or an earlier pattern's name.
    pub test: Test,
}

/// What a pattern entry tests.
#[derive(Clone, Debug)]
pub enum Test {
    /// `function(args)`
    Call(Call),
    /// An earlier pattern.
    Name(String),
}

/// A call of a Che function.
#[derive(Clone, Debug)]
pub struct Call {
    /// The function.
    pub name: &'static str,
    /// The arguments as written.
    pub args: Vec<String>,
}

/// An advice step.
#[derive(Clone, Debug)]
pub enum Step {
    /// An advice function.
    Call(Call),
    /// An earlier advice.
    Name(String),
    /// `{ [!] pattern }`
    Guard {
        /// Written with `!`.
        negated: bool,
        /// The pattern.
        name: String,
    },
}

/// Layout choices drawn with the program: where a statement breaks its
/// line and whether a comment follows it.
#[derive(Clone, Copy, Debug, Default)]
pub struct Layout {
    /// Break the line after every this many entries (0: never).
    pub break_every: u8,
    /// End the statement with a comment on its line.
    pub trailing_comment: bool,
}

impl fmt::Display for Call {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}({})", self.name, self.args.join(" "))
    }
}

impl fmt::Display for Entry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.negated {
            f.write_char('!')?;
        }
        match &self.test {
            Test::Call(c) => write!(f, "{c}"),
            Test::Name(n) => f.write_str(n),
        }
    }
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Step::Call(c) => write!(f, "{c}"),
            Step::Name(n) => f.write_str(n),
            Step::Guard { negated, name } => {
                write!(f, "{{ {}{name} }}", if *negated { "!" } else { "" })
            }
        }
    }
}

fn words(out: &mut String, words: &[String], every: u8) {
    for (i, w) in words.iter().enumerate() {
        if every > 0 && i > 0 && i % usize::from(every) == 0 {
            out.push_str("\n   ");
        }
        out.push(' ');
        out.push_str(w);
    }
}

impl Program {
    /// The source text, every statement laid out as `layouts` says (the
    /// default layout where it has no entry).
    pub fn print(&self, layouts: &[Layout]) -> String {
        let mut out = String::new();
        for (i, item) in self.items.iter().enumerate() {
            let layout = layouts.get(i).copied().unwrap_or_default();
            let every = layout.break_every;
            match item {
                Item::Comment(text) => {
                    let _ = writeln!(out, "# {text}");
                    continue;
                }
                Item::Pattern { name, and, or } => {
                    out.push_str("pattern ");
                    out.push_str(name);
                    for list in [and, or] {
                        out.push_str(" {");
                        let w: Vec<String> = list.iter().map(ToString::to_string).collect();
                        words(&mut out, &w, every);
                        out.push_str(" }");
                    }
                }
                Item::Advice { name, steps } => {
                    out.push_str("advice ");
                    out.push_str(name);
                    let w: Vec<String> = steps.iter().map(ToString::to_string).collect();
                    words(&mut out, &w, every);
                }
                Item::Rule {
                    name,
                    patterns,
                    advices,
                } => {
                    out.push_str("rule ");
                    out.push_str(name);
                    out.push_str(" {");
                    words(&mut out, patterns, every);
                    out.push_str(" }");
                    words(&mut out, advices, every);
                }
            }
            out.push(';');
            if layout.trailing_comment {
                out.push_str("  # after the statement");
            }
            out.push('\n');
        }
        out
    }
}
