; One unit short of ExchngCtrl(w, ..)'s 1980: the call fails before doing
; anything and no fuel is taken. The list is a parameter here, so neither
; backend knows it before run time.
;! call main2
;! fuel 1979
;! error out-of-fuel at f:L_call
;! fuel-used 1
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
