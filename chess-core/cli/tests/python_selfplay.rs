//! python-chess as the UCI client: complete self-play games refereed by an independent
//! implementation of the rules (`tests/python/selfplay.py` says what is checked).
//!
//! The test needs `python3` with the `chess` package. When the package is missing it installs
//! it (`python3 -m pip install --quiet chess`); when that fails too (no network), the test fails
//! and says why.

use std::process::Command;

fn python_has_chess() -> bool {
    Command::new("python3")
        .args(["-c", "import chess, chess.engine, chess.pgn"])
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn self_play_games_refereed_by_python_chess() {
    if !python_has_chess() {
        let _ = Command::new("python3")
            .args(["-m", "pip", "install", "--quiet", "chess"])
            .output();
    }
    assert!(
        python_has_chess(),
        "python3 with the `chess` package is needed (the referee of this test) \
         and `python3 -m pip install chess` did not provide it"
    );
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python/selfplay.py");
    let out = Command::new("python3")
        .args([script, env!("CARGO_BIN_EXE_che-engine"), "4"])
        .output()
        .expect("run python3");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}");
    assert!(
        out.status.success() && stdout.lines().last() == Some("OK"),
        "python-chess self-play failed:\n{stdout}\n{stderr}"
    );
}
