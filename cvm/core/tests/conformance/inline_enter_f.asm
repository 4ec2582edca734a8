; enter.f counts one frame against the depth limit until its leave: with
; limit 2, main may enter twice in a row (leave gives the frame back), but
; a call inside the inlined body would reach depth 3.
;! depth 2
;! error call-depth at main:L_call
.func f params 0 lists 0 locals 0 stack 0 proc
    ret
.end
.func main params 0 lists 0 locals 0 stack 0 proc
    enter.f
    leave
    enter.f
L_call:
    call f
    leave
    ret
.end
