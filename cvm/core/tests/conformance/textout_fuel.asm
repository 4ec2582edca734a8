; Output is charged by its size: `textout` of a 70-byte text charges
; 1 + 70/32 = 3 units, of a 5-byte text 1, and `write` 1. With the entry's
; unit (5 instructions), 1 + 3 + 1 + 1 = 6 units; with 5 the write fails
; after both lines were written, having spent 5.
;! fuel 5
;! text xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx
;! text short
;! error out-of-fuel at main:L_write
;! fuel-used 5
.text long "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
.text short "short"
.func main params 0 lists 0 locals 0 stack 1 proc
    textout long
    textout short
    push 7
L_write:
    write
    ret
.end
