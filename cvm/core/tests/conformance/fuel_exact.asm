; The loop body runs 10 times: 10 taken backward jumps (a span of 4
; instructions, 1 unit each), plus one call of the two-instruction f (1),
; plus the entry of main (8 instructions: 1 + 8/8 = 2) = 13 units.
;! fuel 13
;! fuel-used 13
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
