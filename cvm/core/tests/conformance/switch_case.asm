; case pops and jumps on a match, keeps the value otherwise (switch with fall-through).
;! out 20
;! out 30
;! out 99
;! result 0
.func sel params 1 lists 0 locals 0 stack 1 proc
.slots x
    ldl x
    case 1 L_one
    case 2 L_two
    case 3 L_three
    pop
    push 99
    write
    ret
L_one:
    push 10
    write
    ret
L_two:
    push 20
    write
L_three:
    push 30
    write
    ret
.end
.func main params 0 lists 0 locals 0 stack 1 value
    push 2
    call sel
    push 7
    call sel
    push 0
    retv
.end
