; enter charges one unit: the entry of main (3 instructions: 1 + 3/8 = 1)
; and two enters spend 3 units.
;! fuel 3
;! fuel-used 3
;! result none
.func main params 0 lists 0 locals 0 stack 0 proc
    enter 1
    enter 1
    ret
.end
