; halt stops the whole program from any depth.
;! out 1
;! halt
.func f params 0 lists 0 locals 0 stack 1 value
    push 1
    write
    halt
.end
.func main params 0 lists 0 locals 0 stack 1 value
    call f
    write
    push 3
    retv
.end
