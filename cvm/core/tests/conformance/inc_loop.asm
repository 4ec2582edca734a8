; inc.jlt.li: five trips, four taken backward jumps, plus the entry's unit
; and a unit for each of the five writes (fuel 10 is exactly enough).
;! fuel 10
;! fuel-used 10
;! out 1
;! out 2
;! out 3
;! out 4
;! out 5
;! result 5
.func main params 0 lists 0 locals 1 stack 1 value
.slots i
L:
    ldl i
    add.i 1
    write
    inc.jlt.li i 5 L
    ldl i
    retv
.end
