; Index capacity+1 is past the last slot (capacity 3 -> slots 0..3).
;! error list-index at main:L_bad
.list l 3
.func main params 0 lists 0 locals 0 stack 2 proc
    push 3
    push 0
    ste l
    push 4
    push 0
L_bad:
    ste l
    ret
.end
