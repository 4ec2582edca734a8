//! One real client: Neovim (Debian's `neovim`, headless) opens a Che++
//! file with an error, starts `che lsp` through its built-in LSP client
//! and writes what `vim.diagnostic.get()` holds to a file, which must be
//! the command line's error at its line. Neovim must be installed (`.ci/run`
//! installs it when missing); without it the test fails and says so.

use std::path::PathBuf;
use std::process::Command;

const SCRIPT: &str = r#"
local out = vim.env.CHE_NVIM_OUT
local config = {
  name = "che",
  cmd = { vim.env.CHE_BIN, "lsp" },
  root_dir = vim.fn.getcwd(),
}
if vim.lsp.start then
  vim.lsp.start(config)
else
  local id = vim.lsp.start_client(config)
  vim.lsp.buf_attach_client(0, id)
end
vim.wait(30000, function() return #vim.diagnostic.get(0) > 0 end, 50)
local found = {}
for _, d in ipairs(vim.diagnostic.get(0)) do
  table.insert(found, { lnum = d.lnum, col = d.col, severity = d.severity, message = d.message })
end
local f = io.open(out, "w")
f:write(vim.fn.json_encode(found))
f:close()
vim.cmd("qa!")
"#;

fn nvim_available() -> bool {
    Command::new("nvim")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Installs Debian's neovim when `nvim` is missing (as `.ci/run` does);
/// the test fails below, saying why, when that is not possible.
fn ensure_nvim() {
    if nvim_available() {
        return;
    }
    let apt = |args: &[&str]| {
        let _ = Command::new("apt-get")
            .args(args)
            .env("DEBIAN_FRONTEND", "noninteractive")
            .output();
    };
    apt(&["install", "-y", "-q", "--no-install-recommends", "neovim"]);
    if !nvim_available() {
        apt(&["update", "-q"]);
        apt(&["install", "-y", "-q", "--no-install-recommends", "neovim"]);
    }
}

#[test]
fn neovim_shows_the_diagnostic_of_che_lsp() {
    ensure_nvim();
    assert!(
        nvim_available(),
        "nvim is not installed and `apt-get install neovim` did not provide it: this test needs Debian's neovim"
    );
    let dir: PathBuf = std::env::temp_dir().join(format!("che-nvim-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("broken.che");
    std::fs::write(
        &file,
        "procedure main()\nbegin\n  write 1;\n  write nothing;\nend;\n",
    )
    .expect("writes");
    let script = dir.join("check.lua");
    std::fs::write(&script, SCRIPT).expect("writes");
    let out = dir.join("diagnostics.json");
    let _ = std::fs::remove_file(&out);
    let status = Command::new("nvim")
        .current_dir(&dir)
        .env("CHE_BIN", env!("CARGO_BIN_EXE_che"))
        .env("CHE_NVIM_OUT", &out)
        .env("XDG_STATE_HOME", dir.join("state"))
        .env("XDG_DATA_HOME", dir.join("data"))
        .env("XDG_CONFIG_HOME", dir.join("config"))
        .args(["--headless", "--clean", "-n"])
        .arg(&file)
        .arg("-c")
        .arg(format!("luafile {}", script.display()))
        .status()
        .expect("runs nvim");
    assert!(status.success(), "nvim: {status:?}");
    let text = std::fs::read_to_string(&out).expect("nvim wrote the diagnostics");
    let found: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let list = found.as_array().expect("a list");
    assert_eq!(list.len(), 1, "{text}");
    assert_eq!(list[0]["lnum"], 3);
    assert_eq!(list[0]["col"], 8);
    assert_eq!(list[0]["severity"], 1);
    let message = list[0]["message"].as_str().expect("message");
    assert!(message.starts_with("cannot find `nothing`"), "{message}");
}
