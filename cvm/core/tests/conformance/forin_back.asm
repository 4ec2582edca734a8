; Inverted for-in loops (forl.b / forx.b): the same elements, the same fuel
; as the plain form: one unit per element (the last through `fuel 1`; each
; backward jump spans fewer than 8 instructions), plus the entry of main
; (14 instructions: 1 + 14/8 = 2), the call of sum (8: 1 + 8/8 = 2) and
; the four writes (1 each): 3 + 3 + 2 + 2 + 4 = 14 units, exactly enough.
;! fuel 14
;! fuel-used 14
;! out 4
;! out 5
;! out 6
;! out 15
;! result 0
.list l 8 = 4 5 6
.list e 2
.func sum params 0 lists 1 locals 3 stack 2 value
.slots lst acc v cur
    forx lst cur L_end
L_top:
    ldl acc
    add
    stl acc
    forx.b lst cur L_top
    fuel 1
L_end:
    ldl acc
    retv
.end
.func main params 0 lists 0 locals 2 stack 2 value
.slots v cur
    forl e cur L_none
L_never:
    write
    forl.b e cur L_never
    fuel 1
L_none:
    forl l cur L_end
L_top:
    tee v
    write
    forl.b l cur L_top
    fuel 1
L_end:
    lref l
    call sum
    write
    push 0
    retv
.end
