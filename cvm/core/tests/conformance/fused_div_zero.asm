; div.i 0 traps like div.
;! error division-by-zero at main:L_bad
.func main params 0 lists 0 locals 0 stack 1 value
    push 5
L_bad:
    div.i 0
    retv
.end
