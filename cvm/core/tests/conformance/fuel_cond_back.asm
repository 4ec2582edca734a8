; Conditional backward jumps charge only when taken (repeat-until style):
; the entry (5 instructions) 1 unit, four taken jumps (a span of 3) 1 each.
;! fuel 5
;! fuel-used 5
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
