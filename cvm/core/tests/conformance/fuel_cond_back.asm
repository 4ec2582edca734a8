; Conditional backward jumps charge only when taken (repeat-until style).
;! fuel 4
;! result 5
.func main params 0 lists 0 locals 1 stack 1 value
.slots i
L_loop:
    incl i
    ldl i
    jlt.i 5 L_loop
    ldl i
    retv
.end
