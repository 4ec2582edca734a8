; As intr_fuel_shim.asm, with the colour a constant: the JIT compiles the
; pattern natively and charges the cost it computed at compile time
; (2 + 2 x 250 + 2 x 64 x 27 = 3958 a call, 1 a backward jump, 1 the
; entry). The third call fails with 7919 units used, exactly as on the
; interpreter.
;! fuel 11876
;! error out-of-fuel at main:L_call
;! fuel-used 7919
.list sq 1 = 80
.func main params 0 lists 0 locals 0 stack 2 proc
L_top:
    push 2
    lref sq
L_call:
    intr ExchngCtrl
    pop
    jmp L_top
.end
