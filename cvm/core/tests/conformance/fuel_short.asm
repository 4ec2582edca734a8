; One unit less than fuel_exact.asm and the 10th backward jump runs out of
; fuel.
;! fuel 12
;! fuel-used 12
;! error out-of-fuel at main:L_back
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
L_back:
    jmp L_loop
L_done:
    ldl i
    retv
.end
