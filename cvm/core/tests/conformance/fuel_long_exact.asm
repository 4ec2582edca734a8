; fuel_long.asm with exactly enough: 2 + 3 x 3 + 2 = 13 units.
;! fuel 13
;! fuel-used 13
;! result 3
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
    call f
    ldl i
    jge.i 3 L_done
    push 0
    jz L_top
L_done:
    ldl i
    retv
.end
