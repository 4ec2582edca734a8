; With 4 units the second fuel instruction fails (nothing is taken partially).
;! fuel 4
;! error out-of-fuel at main:L_bad
.func main params 0 lists 0 locals 0 stack 1 value
    fuel 2
L_bad:
    fuel 3
    push 1
    retv
.end
