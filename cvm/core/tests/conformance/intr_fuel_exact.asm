; Exactly the cost is enough: ExchngCtrl(w, ..) is 2 + 250 + 64 x 27 = 1980
; units, the entry 1, and a run with 1981 units returns with none left.
;! fuel 1981
;! fuel-used 1981
;! result 0
.list sq 1 = 80
.func main params 0 lists 0 locals 0 stack 2 value
    push 0
    lref sq
    intr ExchngCtrl
    retv
.end
