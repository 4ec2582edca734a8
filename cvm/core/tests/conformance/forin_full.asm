; A list without any -1 in its elements: for-in stops at the end-marker slot;
; if that slot is overwritten, it stops at the end of the list's slots.
;! out 3
;! result 7
.list l 2 = 1 2
.func main params 0 lists 0 locals 2 stack 3 value
.slots acc cur
    lref l
    intr ListLen
    push 1
    add
    write
    push 2
    push 4
    ste l
L_loop:
    forl l cur L_end
    ldl acc
    add
    stl acc
    jmp L_loop
L_end:
    ldl acc
    retv
.end
