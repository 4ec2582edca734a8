; jmp, jz, jnz and the compare-and-branch forms.
;! out 1
;! out 2
;! out 3
;! out 4
;! out 5
;! out 6
;! result 55
.func main params 0 lists 0 locals 2 stack 2 value
.slots i acc
    push 0
    jz L_a
    push 100
    write
L_a:
    push 1
    write
    push 7
    jnz L_b
    push 100
    write
L_b:
    push 2
    write
    push 3
    push 4
    jlt L_c
    push 100
    write
L_c:
    push 3
    write
    push 4
    push 4
    jne L_bad
    push 4
    push 4
    jle L_d
L_bad:
    push 100
    write
L_d:
    push 4
    write
    push 5
    push 4
    jgt L_e
    jmp L_bad
L_e:
    push 5
    write
    push 4
    push 4
    jge L_f
    jmp L_bad
L_f:
    push 6
    push 6
    jeq L_g
    jmp L_bad
L_g:
    push 6
    write
L_loop:
    ldl i
    jge.i 10 L_done
    incl i
    ldl acc
    ldl i
    add
    stl acc
    jmp L_loop
L_done:
    ldl acc
    retv
.end
