; The loop body runs 10 times: 10 taken backward jumps, plus one call = 11 units.
;! fuel 11
;! result 10
.func f params 0 lists 0 locals 0 stack 1 value
    push 0
    retv
.end
.func main params 0 lists 0 locals 1 stack 1 value
.slots i
    call f
    pop
L_loop:
    ldl i
    jge.i 10 L_done
    incl i
    jmp L_loop
L_done:
    ldl i
    retv
.end
