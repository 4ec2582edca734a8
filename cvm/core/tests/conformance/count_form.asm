; The count form of a Get intrinsic (intr.n, what the optimizer makes of a
; Get call on a list the program never reads) returns what the Get form
; returns and charges what it charges, and leaves the list as it was (the
; Get form would have written the end marker first: nothing to count on
; the empty board). GetPassed(w, l): 2 + 7 for one colour's passed pawns
; + floor(min(3, 65) / 16) = 9; GetPcOnSqrs(wP, l): 3 + 0 = 3; the write
; 1; the entry of the 8-instruction main 1 + 1 = 2. Total 15.
;! fuel 1000
;! fuel-used 15
;! out 0
;! result 0
;! list l 7 7 -1
.list l 2 = 7 7
.func main params 0 lists 0 locals 0 stack 2 value
    push 0
    lref l
    intr.n GetPassed
    write
    push 512
    lref l
    intr.n GetPcOnSqrs
    retv
.end
