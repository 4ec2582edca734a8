; Nested integer loop with * and %:
;   acc := 0; for i in 0..3000: for j in 0..1000: acc := (acc + i*j) % 1000003
; Result 9018.
.func main params 0 lists 0 locals 3 stack 3 value
.slots i j acc
L_i:
    ldl i
    jgei 3000 L_done
    push 0
    stl j
L_j:
    ldl j
    jgei 1000 L_next
    ldl acc
    ldl i
    ldl j
    mul
    add
    push 1000003
    mod
    stl acc
    incl j
    jmp L_j
L_next:
    incl i
    jmp L_i
L_done:
    ldl acc
    retv
.end
