; Forward jumps are free: the entry's unit (7 instructions) runs
; straight-line code with forward branches.
;! fuel 1
;! fuel-used 1
;! result 1
.func main params 0 lists 0 locals 0 stack 1 value
    push 1
    jnz L_a
    push 2
    retv
L_a:
    jmp L_b
L_b:
    push 1
    retv
.end
