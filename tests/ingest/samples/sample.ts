import { EventEmitter } from "events";

export type UserId = string;

export interface User {
  id: UserId;
  name: string;
  email?: string;
}

export enum Role {
  Admin = "admin",
  Member = "member",
}

export interface Repository<T> {
  find(id: UserId): Promise<T | undefined>;
  save(item: T): Promise<void>;
}

export abstract class BaseService<T> {
  protected constructor(protected readonly repository: Repository<T>) {}

  abstract validate(item: T): boolean;

  async load(id: UserId): Promise<T> {
    const item = await this.repository.find(id);
    if (!item) {
      throw new Error(`not found: ${id}`);
    }
    return item;
  }
}

export class UserService extends BaseService<User> {
  private readonly events = new EventEmitter();

  onChange = (listener: (user: User) => void): void => {
    this.events.on("change", listener);
  };

  constructor(repository: Repository<User>) {
    super(repository);
  }

  validate(user: User): boolean {
    return user.name.length > 0 && (!user.email || user.email.includes("@"));
  }

  async rename(id: UserId, name: string): Promise<User> {
    const user = await this.load(id);
    const renamed = { ...user, name };
    await this.repository.save(renamed);
    this.events.emit("change", renamed);
    return renamed;
  }
}

export const formatUser = (user: User): string =>
  user.email ? `${user.name} <${user.email}>` : user.name;

export const handlers = {
  created(user: User): string {
    return `created ${formatUser(user)}`;
  },
  deleted: (id: UserId): string => `deleted ${id}`,
};

export namespace Permissions {
  export function can(role: Role, action: string): boolean {
    return role === Role.Admin || action === "read";
  }
}

export default function createService(repository: Repository<User>): UserService {
  return new UserService(repository);
}
