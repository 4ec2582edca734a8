; One unit short of ExchngCtrl(w, ..)'s 1980 after the entry (1) and the
; call of f (1): the intrinsic call fails before doing anything and takes
; no fuel. The list is a parameter here, so neither backend knows it before
; run time.
;! call main2
;! fuel 1981
;! error out-of-fuel at f:L_call
;! fuel-used 2
.list sq 1 = 80
.func f params 0 lists 1 locals 0 stack 2 value
.slots l
    push 0
    ldl l
L_call:
    intr ExchngCtrl
    retv
.end
.func main2 params 0 lists 0 locals 0 stack 1 value
    lref sq
    call f
    retv
.end
