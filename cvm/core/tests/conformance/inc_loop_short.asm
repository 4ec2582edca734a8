; The entry, four writes and three jumps use all 8 units: the fourth
; backward jump fails.
;! fuel 8
;! fuel-used 8
;! out 1
;! out 2
;! out 3
;! out 4
;! error out-of-fuel at main:L_back
.func main params 0 lists 0 locals 1 stack 1 value
.slots i
L:
    ldl i
    add.i 1
    write
L_back:
    inc.jlt.li i 5 L
    ldl i
    retv
.end
