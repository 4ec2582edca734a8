mod common;
use common::*;

const KK: &str = "8/8/8/4k3/8/8/8/4K3 w - - 0 1";

#[test]
fn smoke() {
    let src = prog(
        "K,K",
        &[
            "ADD A,\"2,\"3",
            "BREAK \"1,A",
            "CARD N,LM",
            "BREAK \"2,N,WK",
            "SET R,SUB1,\"7",
            "BREAK \"3,R,X",
            "LEAVE",
            "SUB1:\tMUL Y,X,\"2",
            "\tRETURN Y",
        ],
    );
    assert_eq!(
        lines(&src, KK),
        ["break 1 5", "break 2 5 wK@e1", "break 3 14 U", "move none"]
    );
}
