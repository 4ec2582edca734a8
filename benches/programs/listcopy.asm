; List copy: fill an 8192-entry list with 0..8191, then copy it into a
; second list 200 times with a for-in loop (the Che++ CopyList idiom).
; Returns the sum of the copy's first and last elements (8191).
.list src 8192
.list dst 8192
.entry main

.func copy params 0 lists 2 locals 2 stack 1 proc
.slots to from j cur
L_loop:
    forx from cur L_end
    stx.l to j
    incl j
    jmp L_loop
L_end:
    push -1
    stx.l to j
    ret
.end

.func main params 0 lists 0 locals 2 stack 2 value
.slots i k
L_fill:
    ldl i
    ste.l src i
    incl i
    jlt.li i 8192 L_fill
L_rep:
    lref dst
    lref src
    call copy
    incl k
    jlt.li k 200 L_rep
    push 0
    lde dst
    push 8191
    lde dst
    add
    retv
.end
