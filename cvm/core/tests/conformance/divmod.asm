; / and % truncate toward zero like C; i32::MIN / -1 wraps, i32::MIN % -1 is 0.
;! out 2
;! out -2
;! out -2
;! out 2
;! out 1
;! out -1
;! out 1
;! out -1
;! out -2147483648
;! out 0
;! out 2
;! result 0
.func main params 0 lists 0 locals 0 stack 2 value
    push 7
    push 3
    div
    write
    push -7
    push 3
    div
    write
    push 7
    push -3
    div
    write
    push -7
    push -3
    div
    write
    push 7
    push 3
    mod
    write
    push -7
    push 3
    mod
    write
    push 7
    push -3
    mod
    write
    push -7
    push -3
    mod
    write
    push -2147483648
    push -1
    div
    write
    push -2147483648
    push -1
    mod
    write
    push 9
    push 7
    mod
    write
    push 0
    retv
.end
