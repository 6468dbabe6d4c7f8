# Writes the bytes of the file INPUT to OUTPUT as the body of a C array
# initialiser ("0x7f,0x45,...", sixteen a line), for an #include inside one.
# Run as: cmake -DINPUT=in -DOUTPUT=out -P EmbedBytes.cmake
file(READ "${INPUT}" hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REPEAT "0x[0-9a-f][0-9a-f]," 16 line)
string(REGEX REPLACE "(${line})" "\\1\n" bytes "${bytes}")
file(WRITE "${OUTPUT}" "${bytes}\n")
