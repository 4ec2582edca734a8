; Folded patterns without a board (an empty board): the and form over an
; empty mask holds for a valid piece, any non-empty test fails, and an
; invalid piece fails both forms. 512 is wP; 7 is not a piece.
;! out 1
;! out 0
;! out 0
;! out 0
;! result 0
.func main params 0 lists 0 locals 0 stack 1 value
    push 512
    pat.all PcOnSqrs 0 0
    write
    push 512
    pat.all PcOnSqrs 4096 0
    write
    push 512
    pat.any orPcOnSqrs -1 -1
    write
    push 7
    pat.all PcOnSqrs 0 0
    write
    push 0
    pat.any Passed 0 65280
    retv
.end
