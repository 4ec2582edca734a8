; Calls cost fuel: one unit for the entry of main and one for each call of
; the one-instruction f, so with 3 units the third call fails.
;! fuel 3
;! error out-of-fuel at main:L_third
.func f params 0 lists 0 locals 0 stack 0 proc
    ret
.end
.func main params 0 lists 0 locals 0 stack 0 proc
    call f
    call f
L_third:
    call f
    ret
.end
