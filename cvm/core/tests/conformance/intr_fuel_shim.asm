; An intrinsic charges its work before it runs. ExchngCtrl(?, ..) on the
; one-element list `..` (80; 2 slots with the end marker): base 2, reach
; 250 x 2 colours, 27 x 64 squares x 2 colours, 2 x floor(2 slots / 8) = 0:
; 2 + 500 + 3456 = 3958 units. Each iteration is 3958 + 1 (the backward
; jump over 5 instructions); the entry of the 5-instruction main is 1. With
; 1 + 2 x 3959 + 3957 units the third call cannot be paid: it fails before
; doing anything, with 7919 units used. The colour comes from a global, so
; the JIT calls the intrinsic shim, which charges at run time.
;! fuel 11876
;! error out-of-fuel at main:L_call
;! fuel-used 7919
.global colour 2
.list sq 1 = 80
.func main params 0 lists 0 locals 0 stack 2 proc
L_top:
    ldg colour
    lref sq
L_call:
    intr ExchngCtrl
    pop
    jmp L_top
.end
