; Modulo by zero is a runtime error.
;! error division-by-zero at main:L_mod
.func main params 0 lists 0 locals 0 stack 2 value
    push -2147483648
    push 0
L_mod:
    mod
    retv
.end
