import Foundation

/// Something that can be fetched from the network.
protocol Fetchable {
    associatedtype Output
    func fetch(from url: URL) async throws -> Output
}

enum HTTPMethod: String {
    case get = "GET"
    case post = "POST"

    var allowsBody: Bool {
        self == .post
    }
}

struct Request {
    let url: URL
    var method: HTTPMethod = .get
    var headers: [String: String] = [:]

    init(url: URL, method: HTTPMethod = .get) {
        self.url = url
        self.method = method
    }

    mutating func header(_ name: String, _ value: String) {
        headers[name] = value
    }
}

final class Session {
    private let configuration: URLSessionConfiguration
    private var tasks: [URLSessionTask] = []

    init(configuration: URLSessionConfiguration = .default) {
        self.configuration = configuration
    }

    deinit {
        tasks.forEach { $0.cancel() }
    }

    func send(_ request: Request) async throws -> Data {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method.rawValue
        for (name, value) in request.headers {
            urlRequest.setValue(value, forHTTPHeaderField: name)
        }
        let (data, _) = try await URLSession.shared.data(for: urlRequest)
        return data
    }

    subscript(index: Int) -> URLSessionTask? {
        tasks.indices.contains(index) ? tasks[index] : nil
    }
}

actor Cache {
    private var entries: [URL: Data] = [:]

    func value(for url: URL) -> Data? {
        entries[url]
    }

    func store(_ data: Data, for url: URL) {
        entries[url] = data
    }
}

extension Session: Fetchable {
    func fetch(from url: URL) async throws -> Data {
        try await send(Request(url: url))
    }
}

func makeSession() -> Session {
    Session()
}

typealias Handler = (Result<Data, Error>) -> Void
