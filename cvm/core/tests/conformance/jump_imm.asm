; Immediate compare-and-branch forms and addi.
;! out 1
;! out 2
;! out 3
;! out 4
;! out 5
;! out 6
;! out -2147483648
;! result 0
.func main params 0 lists 0 locals 0 stack 1 value
    push 5
    jeq.i 5 L1
    jmp L_bad
L1:
    push 1
    write
    push 5
    jne.i 5 L_bad
    push 2
    write
    push 4
    jlt.i 5 L2
    jmp L_bad
L2:
    push 3
    write
    push 5
    jle.i 5 L3
    jmp L_bad
L3:
    push 4
    write
    push 6
    jgt.i 5 L4
    jmp L_bad
L4:
    push 5
    write
    push 5
    jge.i 5 L5
    jmp L_bad
L5:
    push 6
    write
    push 2147483647
    add.i 1
    write
    push 0
    retv
L_bad:
    push 100
    retv
.end
