; ldl.add.i pushes an int local plus an immediate, wrapping; retv.l returns
; an int local.
;! out 41
;! out -2147483648
;! result 42
.func main params 0 lists 0 locals 2 stack 1 value
.slots a b
    push 42
    stl a
    ldl.add.i a -1
    write
    push 2147483647
    stl b
    ldl.add.i b 1
    write
    retv.l a
.end
