; The local-operand fused forms: add.l sub.l mul.l, lde.l ste.l, ldx.l stx.l, j*.li.
;! out 13
;! out 7
;! out 30
;! out 11
;! out 22
;! out 6
;! result 3
.list l 3 = 11 22 33
.func viaref params 0 lists 1 locals 1 stack 2 value
.slots lst i
    push 1
    stl i
    ldx.l lst i
    write
    push 6
    stx.l lst i
    ldx.l lst i
    retv
.end
.func main params 0 lists 0 locals 3 stack 2 value
.slots a b i
    push 10
    stl a
    push 3
    stl b
    ldl a
    add.l b
    write
    ldl a
    sub.l b
    write
    ldl a
    mul.l b
    write
    lde.l l i
    write
    lref l
    call viaref
    write
    push 0
    stl i
L_loop:
    incl i
    jlt.li i 3 L_loop
    jeq.li i 3 L_ok
    push 100
    retv
L_ok:
    jne.li i 3 L_bad
    jle.li i 2 L_bad
    jgt.li i 3 L_bad
    jge.li i 3 L_end
L_bad:
    push 100
    retv
L_end:
    ldl i
    retv
.end
