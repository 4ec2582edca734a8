//! Bitboard chess and the host that runs Che++ advice programs.
