import 'dart:async';
import 'dart:convert';

/// A note with a title and body.
class Note {
  final String id;
  final String title;
  final String body;

  const Note({required this.id, required this.title, this.body = ''});

  factory Note.fromJson(Map<String, dynamic> json) => Note(
        id: json['id'] as String,
        title: json['title'] as String,
        body: json['body'] as String? ?? '',
      );

  Map<String, dynamic> toJson() => {'id': id, 'title': title, 'body': body};

  Note copyWith({String? title, String? body}) {
    return Note(id: id, title: title ?? this.title, body: body ?? this.body);
  }

  @override
  String toString() => 'Note($id, $title)';
}

enum SortOrder { newest, oldest, title }

abstract class NoteRepository {
  Future<List<Note>> all();
  Future<void> save(Note note);
  Stream<Note> get changes;
}

mixin Logging {
  void log(String message) => print('[${runtimeType}] $message');
}

class MemoryRepository with Logging implements NoteRepository {
  final _notes = <String, Note>{};
  final _controller = StreamController<Note>.broadcast();

  @override
  Future<List<Note>> all() async => _notes.values.toList();

  @override
  Future<void> save(Note note) async {
    _notes[note.id] = note;
    _controller.add(note);
    log('saved ${note.id}');
  }

  @override
  Stream<Note> get changes => _controller.stream;

  int get count => _notes.length;

  set seed(List<Note> notes) {
    for (final note in notes) {
      _notes[note.id] = note;
    }
  }
}

extension NoteSorting on List<Note> {
  List<Note> sortedBy(SortOrder order) {
    final copy = [...this];
    switch (order) {
      case SortOrder.title:
        copy.sort((a, b) => a.title.compareTo(b.title));
      default:
        break;
    }
    return copy;
  }
}

typedef NoteFilter = bool Function(Note note);

String encodeNotes(List<Note> notes) => jsonEncode([for (final n in notes) n.toJson()]);

Future<void> main() async {
  final repository = MemoryRepository();
  await repository.save(const Note(id: '1', title: 'Hello'));
  print(encodeNotes(await repository.all()));
}
