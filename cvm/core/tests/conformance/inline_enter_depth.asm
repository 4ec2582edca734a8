; enter k raises the call-depth error where a call k frames deeper would:
; with limit 2, main (depth 1) may enter one frame deep but not two.
;! depth 2
;! error call-depth at main:L_two
.func main params 0 lists 0 locals 0 stack 0 proc
    enter 1
L_two:
    enter 2
    ret
.end
