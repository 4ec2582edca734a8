; Nested integer loop with * and %:
;   acc := 0; for i in 0..3000: for j in 0..1000: acc := (acc + i*j) % 1000003
; Result 9018. Loops are rotated (test at the bottom) as an assembly
; programmer or the optimizer would write them.
.entry main

.func main params 0 lists 0 locals 3 stack 2 value
.slots i j acc
L_i:
    push 0
    stl j
L_j:
    ldl i
    mul.l j
    add.l acc
    push 1000003
    mod
    stl acc
    incl j
    jlt.li j 1000 L_j
    incl i
    jlt.li i 3000 L_i
    ldl acc
    retv
.end
