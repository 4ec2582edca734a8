; Bounds are checked on the local-index forms (index 4 of a capacity-3 list).
;! error list-index at main:L_bad
.list l 3
.func main params 0 lists 0 locals 1 stack 1 proc
.slots i
    push 4
    stl i
    push 1
L_bad:
    ste.l l i
    ret
.end
