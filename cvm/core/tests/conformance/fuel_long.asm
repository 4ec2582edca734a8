; Calls and backward jumps pay for the straight-line code under them
; (docs/cvm.md, Fuel): f has 19 instructions, so its call charges
; 1 + 19/8 = 3; main has 8, so its entry charges 1 + 8/8 = 2; main's loop jumps back
; over 6 instructions (1 unit a taken jump). Three calls and two taken
; jumps: 2 + 3 x 3 + 2 = 13 units; with 12 the third call fails, having
; spent 2 + 2 x 3 + 2 = 10.
;! fuel 12
;! error out-of-fuel at main:L_call
;! fuel-used 10
.func f params 0 lists 0 locals 0 stack 1 proc
    push 1
    pop
    push 1
    pop
    push 1
    pop
    push 1
    pop
    push 1
    pop
    push 1
    pop
    push 1
    pop
    push 1
    pop
    push 1
    pop
    ret
.end
.func main params 0 lists 0 locals 1 stack 1 value
.slots i
L_top:
    incl i
L_call:
    call f
    ldl i
    jge.i 3 L_done
    push 0
    jz L_top
L_done:
    ldl i
    retv
.end
