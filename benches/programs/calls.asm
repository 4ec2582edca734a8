; Call-heavy: two small calls per iteration, 1,000,000 iterations.
;   mix(a, b) = (a ^ b) + 1;  step(acc, i) = mix(acc, i) & 0xFFFFF
;   acc := 0; for i in 0..1000000: acc := step(acc, i)
; Result 925184.
.entry main

.func mix params 2 lists 0 locals 0 stack 2 value
.slots a b
    ldl a
    ldl b
    bxor
    add.i 1
    retv
.end

.func step params 2 lists 0 locals 0 stack 2 value
.slots acc i
    ldl acc
    ldl i
    call mix
    push 1048575
    band
    retv
.end

.func main params 0 lists 0 locals 2 stack 2 value
.slots i acc
L_loop:
    ldl acc
    ldl i
    call step
    stl acc
    incl i
    jlt.li i 1000000 L_loop
    ldl acc
    retv
.end
