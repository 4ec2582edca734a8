; List element load/store on module lists and through references; the end
; marker slot is addressable; uninitialised slots are -1.
;! out 10
;! out 30
;! out -1
;! out -1
;! out 99
;! out 7
;! result 4
.list l 3 = 10 20 30
.list m 4
.func get params 1 lists 1 locals 0 stack 2 value
.slots i lst
    ldl lst
    ldl i
    ldx
    retv
.end
.func put params 2 lists 1 locals 0 stack 3 proc
.slots i v lst
    ldl lst
    ldl i
    ldl v
    stx
    ret
.end
.func main params 0 lists 0 locals 0 stack 3 value
    push 0
    lde l
    write
    push 2
    lref l
    call get
    write
    push 3
    lde l
    write
    push 0
    lde m
    write
    push 3
    push 99
    ste l
    push 3
    lde l
    write
    push 4
    push 7
    lref m
    call put
    push 4
    lde m
    write
    lref l
    intr ListLen
    retv
.end
