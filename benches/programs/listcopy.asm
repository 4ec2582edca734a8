; List copy: fill an 8192-entry list with 0..8191, then copy it into a
; second list 200 times with a for-in loop (the Che++ CopyList idiom).
; Returns the sum of the copy's first and last elements (8191).
.list src 8192
.list dst 8192

.func copy params 0 lists 2 locals 3 stack 3 proc
.slots to from v j cur
L_loop:
    forx from cur L_end
    stl v
    ldl to
    ldl j
    ldl v
    stx
    incl j
    jmp L_loop
L_end:
    ldl to
    ldl j
    push -1
    stx
    ret
.end

.func main params 0 lists 0 locals 2 stack 3 value
.slots i k
L_fill:
    ldl i
    jgei 8192 L_filled
    ldl i
    ldl i
    ste src
    incl i
    jmp L_fill
L_filled:
L_rep:
    ldl k
    jgei 200 L_done
    lref dst
    lref src
    call copy
    incl k
    jmp L_rep
L_done:
    push 0
    lde dst
    push 8191
    lde dst
    add
    retv
.end
