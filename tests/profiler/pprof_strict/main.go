// Decodes a pprof file (gzip-compressed profile.proto) with protobuf-go, as Go services that ingest
// profiles do: proto.Unmarshal rejects a file whose strings are not valid UTF-8. The message types
// are built at run time from profile.proto's definitions (below, in the protobuf text format), so
// nothing is generated. Prints the string table and the mappings' file names; exits 1 on failure.
// Usage: go run main.go FILE.pb.gz
package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"

	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
)

// profile.proto (github.com/google/pprof/blob/main/proto/profile.proto), fields as numbered there.
const profileProto = `
name: "profile.proto" package: "perftools.profiles" syntax: "proto3"
message_type {
  name: "Profile"
  field { name: "sample_type" number: 1 label: LABEL_REPEATED type: TYPE_MESSAGE type_name: ".perftools.profiles.ValueType" }
  field { name: "sample" number: 2 label: LABEL_REPEATED type: TYPE_MESSAGE type_name: ".perftools.profiles.Sample" }
  field { name: "mapping" number: 3 label: LABEL_REPEATED type: TYPE_MESSAGE type_name: ".perftools.profiles.Mapping" }
  field { name: "location" number: 4 label: LABEL_REPEATED type: TYPE_MESSAGE type_name: ".perftools.profiles.Location" }
  field { name: "function" number: 5 label: LABEL_REPEATED type: TYPE_MESSAGE type_name: ".perftools.profiles.Function" }
  field { name: "string_table" number: 6 label: LABEL_REPEATED type: TYPE_STRING }
  field { name: "drop_frames" number: 7 label: LABEL_OPTIONAL type: TYPE_INT64 }
  field { name: "keep_frames" number: 8 label: LABEL_OPTIONAL type: TYPE_INT64 }
  field { name: "time_nanos" number: 9 label: LABEL_OPTIONAL type: TYPE_INT64 }
  field { name: "duration_nanos" number: 10 label: LABEL_OPTIONAL type: TYPE_INT64 }
  field { name: "period_type" number: 11 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".perftools.profiles.ValueType" }
  field { name: "period" number: 12 label: LABEL_OPTIONAL type: TYPE_INT64 }
  field { name: "comment" number: 13 label: LABEL_REPEATED type: TYPE_INT64 }
  field { name: "default_sample_type" number: 14 label: LABEL_OPTIONAL type: TYPE_INT64 }
}
message_type {
  name: "ValueType"
  field { name: "type" number: 1 label: LABEL_OPTIONAL type: TYPE_INT64 }
  field { name: "unit" number: 2 label: LABEL_OPTIONAL type: TYPE_INT64 }
}
message_type {
  name: "Sample"
  field { name: "location_id" number: 1 label: LABEL_REPEATED type: TYPE_UINT64 }
  field { name: "value" number: 2 label: LABEL_REPEATED type: TYPE_INT64 }
  field { name: "label" number: 3 label: LABEL_REPEATED type: TYPE_MESSAGE type_name: ".perftools.profiles.Label" }
}
message_type {
  name: "Label"
  field { name: "key" number: 1 label: LABEL_OPTIONAL type: TYPE_INT64 }
  field { name: "str" number: 2 label: LABEL_OPTIONAL type: TYPE_INT64 }
  field { name: "num" number: 3 label: LABEL_OPTIONAL type: TYPE_INT64 }
  field { name: "num_unit" number: 4 label: LABEL_OPTIONAL type: TYPE_INT64 }
}
message_type {
  name: "Mapping"
  field { name: "id" number: 1 label: LABEL_OPTIONAL type: TYPE_UINT64 }
  field { name: "memory_start" number: 2 label: LABEL_OPTIONAL type: TYPE_UINT64 }
  field { name: "memory_limit" number: 3 label: LABEL_OPTIONAL type: TYPE_UINT64 }
  field { name: "file_offset" number: 4 label: LABEL_OPTIONAL type: TYPE_UINT64 }
  field { name: "filename" number: 5 label: LABEL_OPTIONAL type: TYPE_INT64 }
  field { name: "build_id" number: 6 label: LABEL_OPTIONAL type: TYPE_INT64 }
  field { name: "has_functions" number: 7 label: LABEL_OPTIONAL type: TYPE_BOOL }
  field { name: "has_filenames" number: 8 label: LABEL_OPTIONAL type: TYPE_BOOL }
  field { name: "has_line_numbers" number: 9 label: LABEL_OPTIONAL type: TYPE_BOOL }
  field { name: "has_inline_frames" number: 10 label: LABEL_OPTIONAL type: TYPE_BOOL }
}
message_type {
  name: "Location"
  field { name: "id" number: 1 label: LABEL_OPTIONAL type: TYPE_UINT64 }
  field { name: "mapping_id" number: 2 label: LABEL_OPTIONAL type: TYPE_UINT64 }
  field { name: "address" number: 3 label: LABEL_OPTIONAL type: TYPE_UINT64 }
  field { name: "line" number: 4 label: LABEL_REPEATED type: TYPE_MESSAGE type_name: ".perftools.profiles.Line" }
  field { name: "is_folded" number: 5 label: LABEL_OPTIONAL type: TYPE_BOOL }
}
message_type {
  name: "Line"
  field { name: "function_id" number: 1 label: LABEL_OPTIONAL type: TYPE_UINT64 }
  field { name: "line" number: 2 label: LABEL_OPTIONAL type: TYPE_INT64 }
}
message_type {
  name: "Function"
  field { name: "id" number: 1 label: LABEL_OPTIONAL type: TYPE_UINT64 }
  field { name: "name" number: 2 label: LABEL_OPTIONAL type: TYPE_INT64 }
  field { name: "system_name" number: 3 label: LABEL_OPTIONAL type: TYPE_INT64 }
  field { name: "filename" number: 4 label: LABEL_OPTIONAL type: TYPE_INT64 }
  field { name: "start_line" number: 5 label: LABEL_OPTIONAL type: TYPE_INT64 }
}
`

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "FAIL: "+format+"\n", args...)
	os.Exit(1)
}

func main() {
	if len(os.Args) != 2 {
		fail("usage: pprof_strict FILE.pb.gz")
	}
	compressed, err := os.ReadFile(os.Args[1])
	if err != nil {
		fail("%v", err)
	}
	reader, err := gzip.NewReader(bytes.NewReader(compressed))
	if err != nil {
		fail("not gzip: %v", err)
	}
	raw, err := io.ReadAll(reader)
	if err != nil {
		fail("gzip: %v", err)
	}
	var fdp descriptorpb.FileDescriptorProto
	if err := prototext.Unmarshal([]byte(profileProto), &fdp); err != nil {
		fail("profile.proto text: %v", err)
	}
	file, err := protodesc.NewFile(&fdp, nil)
	if err != nil {
		fail("profile.proto descriptor: %v", err)
	}
	profile := dynamicpb.NewMessage(file.Messages().ByName("Profile"))
	if err := proto.Unmarshal(raw, profile); err != nil {
		fail("proto.Unmarshal: %v", err)
	}
	fields := profile.Descriptor().Fields()
	strings := profile.Get(fields.ByName("string_table")).List()
	for i := 0; i < strings.Len(); i++ {
		fmt.Printf("string %q\n", strings.Get(i).String())
	}
	mappings := profile.Get(fields.ByName("mapping")).List()
	for i := 0; i < mappings.Len(); i++ {
		m := mappings.Get(i).Message()
		index := m.Get(m.Descriptor().Fields().ByName("filename")).Int()
		fmt.Printf("mapping %d: %s\n", i+1, strings.Get(int(index)).String())
	}
	fmt.Printf("decoded: %d strings, %d mappings\n", strings.Len(), mappings.Len())
}
