//! Hosts for tests whose subject is how a backend reads the host.

use cvm::{Host, TrapKind};
use cvm_chess::board::BoardView;

/// The `HostCall` service that moves a [`MovingHost`] to its next board.
pub const MOVE_SERVICE: i32 = 1;

/// A host whose position changes in the middle of a run, through
/// `HostCall` only: service [`MOVE_SERVICE`] moves it to the next of its
/// boards (round to the first after the last); every other service
/// answers 0 and changes nothing.
#[derive(Clone, Debug)]
pub struct MovingHost {
    boards: Vec<BoardView>,
    at: usize,
}

impl MovingHost {
    /// A host showing `boards[0]` first (no board at all when `boards` is
    /// empty).
    pub fn new(boards: Vec<BoardView>) -> MovingHost {
        MovingHost { boards, at: 0 }
    }
}

impl Host for MovingHost {
    fn board(&self) -> Option<&BoardView> {
        self.boards.get(self.at)
    }

    fn extension(&mut self, service: i32, _args: [i32; 3]) -> Result<i32, TrapKind> {
        if service == MOVE_SERVICE && !self.boards.is_empty() {
            self.at = (self.at + 1) % self.boards.len();
        }
        Ok(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_move_service_goes_round_the_boards() {
        let boards = [
            "4k3/8/8/8/8/8/8/4K3 w - - 0 1",
            "4k3/8/8/8/8/8/8/3K4 w - - 0 1",
        ]
        .map(|f| BoardView::from_fen(f).expect("fen"));
        let mut host = MovingHost::new(boards.to_vec());
        assert_eq!(host.board(), Some(&boards[0]));
        assert_eq!(host.extension(2, [0; 3]), Ok(0));
        assert_eq!(host.board(), Some(&boards[0]));
        assert_eq!(host.extension(MOVE_SERVICE, [0; 3]), Ok(0));
        assert_eq!(host.board(), Some(&boards[1]));
        assert_eq!(host.extension(MOVE_SERVICE, [0; 3]), Ok(0));
        assert_eq!(host.board(), Some(&boards[0]));
        let mut empty = MovingHost::new(Vec::new());
        assert_eq!(empty.extension(MOVE_SERVICE, [0; 3]), Ok(0));
        assert_eq!(empty.board(), None);
    }
}
