; A backward jl*.li charges fuel when taken: the entry's unit and four taken
; jumps need 5 units; with 4 the fourth jump fails.
;! fuel 4
;! fuel-used 4
;! error out-of-fuel at main:L_back
.func main params 0 lists 0 locals 1 stack 1 value
.slots i
L_loop:
    incl i
L_back:
    jlt.li i 5 L_loop
    ldl i
    retv
.end
