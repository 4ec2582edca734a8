; textout writes a module text as a line.
;! text white Colle Position
;! out 255
;! result none
.text wColle "white Colle Position"
.func main params 0 lists 0 locals 0 stack 1 proc
    textout wColle
    push 255
    write
    ret
.end
