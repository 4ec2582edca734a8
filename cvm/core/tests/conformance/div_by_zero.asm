; Division by zero is a runtime error at the div instruction; output before it stays.
;! out 1
;! error division-by-zero at main:L_div
.func main params 0 lists 0 locals 0 stack 2 value
    push 1
    write
    push 5
    push 0
L_div:
    div
    retv
.end
