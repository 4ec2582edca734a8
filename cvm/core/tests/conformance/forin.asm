; for-in over a module list and over a list parameter stops at the first -1.
;! out 4
;! out 5
;! out 6
;! out 15
;! result 2
.list l 8 = 4 5 6 -1 9
.func sum params 0 lists 1 locals 3 stack 2 value
.slots lst acc v cur
L_loop:
    forx lst cur L_end
    stl v
    ldl acc
    ldl v
    add
    stl acc
    jmp L_loop
L_end:
    ldl acc
    retv
.end
.func main params 0 lists 0 locals 2 stack 2 value
.slots v cur
L_loop:
    forl l cur L_end
    write
    jmp L_loop
L_end:
    lref l
    call sum
    write
    push 3
    push 7
    ste l
    push 4
    push -1
    ste l
    lref l
    intr ListLen
    push 2
    sub
    retv
.end
